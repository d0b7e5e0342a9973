"""koplc.gnn"""
