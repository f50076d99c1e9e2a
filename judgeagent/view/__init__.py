"""Look inside a run: every episode's transcript as one self-contained HTML viewer (`page`), and the run as an
Inspect AI eval log (`inspect`). Shared code: a protocol shapes its episodes through `Protocol.view_episodes`."""
