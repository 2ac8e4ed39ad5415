"""The Claim game service. Layers, lowest first: `domain` (pure rules), `events`,
`api`; see docs/RULES.md for the rules."""
