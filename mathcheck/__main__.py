from mathcheck.cli import main

main(prog_name="mathcheck")  # `python -m mathcheck` reads as `mathcheck` in messages and replay lines
