"""What koplc knows about particular KGQA datasets: `metaqa` (its questions, gold programs,
scoring and KB schema)."""
