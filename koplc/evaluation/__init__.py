"""koplc.evaluation"""
