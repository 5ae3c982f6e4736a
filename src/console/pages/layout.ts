import { html, type Html } from '../../html/html.ts';
import type { Session } from '../auth/sessions.ts';
import { can } from '../auth/roles.ts';

export interface PageOptions {
  title: string;
  session: Session | null;
  /** Which nav item is current. */
  nav?: 'days' | 'cases' | 'movements' | 'reruns' | 'jobs' | 'users';
  /** Reload every N seconds (a running rerun), without JavaScript. */
  refreshSeconds?: number;
  /** What the search box shows (the ref just searched). */
  searched?: string;
}

/** The page shell: nav by role, the signed-in user and a logout form carrying the CSRF token. */
export function page(opts: PageOptions, body: Html): string {
  const s = opts.session;
  const link = (key: NonNullable<PageOptions['nav']>, href: string, label: string) =>
    html`<a href="${href}" class="${opts.nav === key ? 'on' : ''}">${label}</a>`;
  const nav = s
    ? html`<nav>
          ${link('days', '/days', 'Business days')} ${link('cases', '/cases', 'Cases')} ${link('movements', '/movements', 'Movements')}
          ${link('reruns', '/reruns', 'Reruns')} ${link('jobs', '/jobs', 'Jobs')}
          ${can(s.role, 'manage-users') ? link('users', '/users', 'Users') : null}
        </nav>
        <form class="search" method="get" action="/search" role="search">
          <input
            type="search"
            name="ref"
            value="${opts.searched ?? ''}"
            placeholder="merchant or transaction ref"
            aria-label="Search by ref"
            minlength="6"
            required
          />
          <button class="secondary" type="submit">Find</button>
        </form>
        <div class="who">
          <span>${s.userName} (${s.role})</span>
          <form class="inline" method="post" action="/logout">${csrfField(s)}<button class="secondary" type="submit">Log out</button></form>
        </div>`
    : null;
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        ${opts.refreshSeconds ? html`<meta http-equiv="refresh" content="${opts.refreshSeconds}" />` : null}
        <title>${opts.title} · payrecon</title>
        <link rel="stylesheet" href="/console.css" />
        <link rel="icon" href="/favicon.ico" type="image/svg+xml" />
      </head>
      <body>
        <header><span class="brand">payrecon</span>${nav}</header>
        <main>${body}</main>
      </body>
    </html> `.text;
}

export function csrfField(s: Session): Html {
  return html`<input type="hidden" name="_csrf" value="${s.csrfToken}" />`;
}

export function stateBadge(state: string): Html {
  return html`<span class="state state-${state.replace(/[^a-z-]/g, '')}">${state}</span>`;
}
