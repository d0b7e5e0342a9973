"""The name indexes grounding searches: one per kind of KB item, lexical and by embedding.

`kb_indexes.Indexes` holds a KB's five indexes, loading each from the user cache (`store`) or
building it; `vector.NameIndex` is one index (hnswlib over `embedder`'s MiniLM vectors, plus
exact, normal-form and `trigram` lookups). `minilm` is the encoder on plain torch; it imports
torch, so nothing here imports it until vectors are needed.
"""
