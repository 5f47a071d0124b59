from mathcheck.cli import main

main()
