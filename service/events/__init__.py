"""Event types, the fold and the Redis stream store (to come: issue "The event store")."""
