"""koplc.llm.lm"""
