"""The REST API (to come: issue "The REST API and openapi.yaml")."""
