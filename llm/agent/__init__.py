"""The Interactive-KBQA agent: an LM talks to the KB through generic tools (SearchNodes,
SearchGraphPatterns, ExecuteKoPL, ExecuteSPARQL) one Thought and Action a turn; dialogs
replayed from programs through the same tools are its demonstrations."""
