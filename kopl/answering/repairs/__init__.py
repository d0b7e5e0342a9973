"""Repairs of proposed programs, as passes: each is `(Node, RepairContext) -> (Node, changes)`,
run in the order of `REPAIRS` by one driver (driver.py), as the grounding passes are."""
