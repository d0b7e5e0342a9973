"""The back half that every front end shares: a front end proposes programs; these stages
link the question, parse and check a program, repair it (repairs/), ground it, execute it,
judge its answer, rank it and time each stage."""
