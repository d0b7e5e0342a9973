"""koplc.llm.byokg"""
