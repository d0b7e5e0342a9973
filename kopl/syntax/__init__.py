"""KoPL's surface syntaxes: each module reads one syntax into the IR and prints the IR back.

`steps` (the ``Step N: Func(args) … Done`` text LLMs write), `nested` (nested calls),
`kqapro_json` (KQA Pro's program list), `engine_pair` (the official engine's
``(functions, inputs)`` pair), `bart` (KQA Pro's BART string) and `ir_json` (the IR's own JSON).
The linear syntaxes share the step list (`step_list`); the JSON ones read through `located_json`,
the lark-based ones map lark's errors through `lark_errors`, and `quoting` is their string quoting.
"""
