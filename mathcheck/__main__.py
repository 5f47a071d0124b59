from mathcheck.cli import entry

entry()  # the command: supervised, named `mathcheck` in messages and replay lines
