from pokayokay.cli.main import main

raise SystemExit(main())
