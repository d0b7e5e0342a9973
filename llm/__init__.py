"""koplc.llm"""
