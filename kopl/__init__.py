"""koplc.kopl"""
