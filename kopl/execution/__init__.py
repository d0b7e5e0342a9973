"""The native executor: `executor.execute(program, kb)` runs an IR program on a KB with the
official KoPL engine's semantics; `sets`, `queries` and `extensions` hold its operations.
"""
