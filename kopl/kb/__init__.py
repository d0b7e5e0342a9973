"""The knowledge base: its model and the loaders that fill it.

`model` is the KB itself (nodes, facts with qualifiers, the indexes execution needs) and its
builder; `kopl_json` reads and writes KoPL KB JSON, `triples` reads pipe triples (shaped by a
`triple_schema` the caller names: a dataset's, a JSON file, else the file's neutral one) and
RDF, and `cache` loads any of them through a binary cache in the user cache folder. `check`
warns about a program's names that the KB does not have.
"""
