/** The console's one stylesheet: system fonts, readable from 1280 px laptop screens up, amounts right-aligned in tabular figures. */
export const CONSOLE_CSS = `
:root { --fg:#1d2330; --muted:#5b6475; --line:#d9dde5; --bg:#f6f7f9; --accent:#1f5fbf; --bad:#b3261e; --ok:#1e7a3a; --warn:#8a5a00; }
* { box-sizing: border-box; }
body { margin:0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color:var(--fg); background:var(--bg); }
header { display:flex; align-items:center; gap:24px; padding:10px 24px; background:#fff; border-bottom:1px solid var(--line); }
header .brand { font-weight:700; }
header nav a { margin-right:16px; color:var(--fg); text-decoration:none; }
header nav a.on { color:var(--accent); font-weight:600; border-bottom:2px solid var(--accent); }
header .who { margin-left:auto; color:var(--muted); display:flex; gap:12px; align-items:center; }
main { padding:20px 24px; max-width:1400px; }
h1 { font-size:20px; margin:0 0 12px; } h2 { font-size:16px; margin:24px 0 8px; }
a { color:var(--accent); }
.muted { color:var(--muted); }
.headline { font-size:16px; padding:10px 14px; background:#fff; border:1px solid var(--line); border-left:4px solid var(--accent); margin-bottom:16px; }
.table-wrap { overflow-x:auto; background:#fff; border:1px solid var(--line); }
table { border-collapse:collapse; width:100%; }
th, td { padding:5px 10px; border-bottom:1px solid var(--line); text-align:left; white-space:nowrap; vertical-align:top; }
th { background:#eef1f5; font-weight:600; position:sticky; top:0; }
td.num, th.num { text-align:right; font-variant-numeric: tabular-nums; }
td.wrap { white-space:normal; min-width:240px; }
tr:hover td { background:#f9fafc; }
.state { display:inline-block; padding:1px 8px; border-radius:10px; font-size:12px; border:1px solid var(--line); }
.state-open, .state-failed, .state-mismatch, .state-error { color:var(--bad); border-color:var(--bad); }
.state-acknowledged, .state-running, .state-queued, .state-pending { color:var(--warn); border-color:var(--warn); }
.state-resolved, .state-completed, .state-matched { color:var(--ok); border-color:var(--ok); }
form.inline { display:inline; }
.filters { display:flex; flex-wrap:wrap; gap:10px; align-items:end; margin-bottom:12px; }
.filters label, .form label { display:flex; flex-direction:column; font-size:12px; color:var(--muted); }
input, select, textarea, button { font:inherit; padding:5px 8px; border:1px solid var(--line); border-radius:4px; background:#fff; }
button { background:var(--accent); color:#fff; border-color:var(--accent); cursor:pointer; }
button.secondary { background:#fff; color:var(--fg); border-color:var(--line); }
.form { display:flex; flex-direction:column; gap:10px; max-width:420px; background:#fff; padding:16px; border:1px solid var(--line); }
.grid2 { display:grid; grid-template-columns: 1fr 1fr; gap:16px; }
@media (max-width: 1100px) { .grid2 { grid-template-columns: 1fr; } }
.notice { padding:8px 12px; border:1px solid var(--line); background:#fff8e6; margin-bottom:12px; }
.error { padding:8px 12px; border:1px solid var(--bad); color:var(--bad); background:#fff; margin-bottom:12px; }
tr.differs td { background:#fff4e0; font-weight:600; }
.ref-cut { max-width:34ch; overflow:hidden; text-overflow:ellipsis; }
.form.bulk { flex-direction:row; flex-wrap:wrap; align-items:end; max-width:none; margin-bottom:10px; padding:10px 12px; }
.login { max-width:360px; margin:80px auto; }
dl.facts { display:grid; grid-template-columns: max-content 1fr; gap:4px 16px; margin:0; }
dl.facts dt { color:var(--muted); }
progress { width:240px; }
header form.search { display:flex; gap:6px; } header form.search input { width:260px; }
`;
