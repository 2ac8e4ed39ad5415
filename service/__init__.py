"""The Claim game service. Layers, lowest first: `domain` (pure rules), `events`,
`api`; see ../shared/DESIGN.md."""
