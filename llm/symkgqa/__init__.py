"""koplc.llm.symkgqa"""
