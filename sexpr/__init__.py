"""koplc.sexpr"""
