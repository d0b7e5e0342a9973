"""KoPL and the typed IR: the IR's core modules, and the packages `syntax`, `kb`, `datasets`,
`execution`, `grounding` and `exploration` (see the README's layout)."""
