from dicebridge.cli import main

raise SystemExit(main())
