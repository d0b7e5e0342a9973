"""koplc.sparql_backend"""
