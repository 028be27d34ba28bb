from pokayokay.cli import main

raise SystemExit(main())
