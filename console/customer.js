/* global document, sessionStorage, fetch */
// A white-label brand's console page (issue 23), served on the brand's own host (api/consolePages.ts):
// a customer signs in by e-mail (a one-time code mailed by the service), then sees its projects, creates
// one (its first API key is shown once) and signs out. Only a client of the public REST API:
//   GET  /whitelabel/{subdomain}/brand, POST .../customers/code, POST .../customers/session,
//   GET  /customer, POST /customer/projects, DELETE /customer/session.
// The session's bearer token lives in this tab's sessionStorage of the brand's origin.
import { h, render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import htm from 'htm';

const html = htm.bind(h);
const API = '/rest/api/v1';
const TOKEN = 'copytrade.customerToken';
const SUBDOMAIN = document.body.dataset.brand ?? '';

const call = async (method, path, body) => {
  const headers = {};
  const token = sessionStorage.getItem(TOKEN);
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(API + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = text;
  }
  if (!res.ok) {
    const error = new Error(data && data.message ? `${data.error ? `${data.error} ` : ''}${data.message}` : `HTTP ${res.status}`);
    error.status = res.status;
    throw error;
  }
  return data;
};

const Problem = ({ error }) => (error ? html`<p class="error" role="alert">${error.message}</p>` : null);
const when = (iso) => (iso ? new Date(iso).toISOString().slice(0, 16).replace('T', ' ') + 'Z' : '–');

const SignIn = ({ brand, onSignedIn }) => {
  const [email, setEmail] = useState('');
  const [sent, setSent] = useState(null);
  const [code, setCode] = useState('');
  const [error, setError] = useState(null);
  const [busy, setBusy] = useState(false);
  const run = (work) => async (e) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await work();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const askCode = run(async () => {
    setSent(await call('POST', `/whitelabel/${encodeURIComponent(SUBDOMAIN)}/customers/code`, { email: email.trim() }));
    setCode('');
  });
  const signIn = run(async () => {
    const session = await call('POST', `/whitelabel/${encodeURIComponent(SUBDOMAIN)}/customers/session`, { codeId: sent.codeId, code: code.trim() });
    sessionStorage.setItem(TOKEN, session.token);
    onSignedIn();
  });
  return html`<main>
    <section class="card signin" aria-labelledby="signin-title">
      ${brand.logo ? html`<img class="brand-logo" src=${brand.logo} alt="" />` : null}
      <h1 id="signin-title">${brand.name}</h1>
      ${
        sent
          ? html`<form onSubmit=${signIn}>
              <p class="muted" role="status">
                ${sent.purpose === 'REGISTRATION' ? 'We sent a code to register' : 'We sent a code to sign in'} to ${email.trim()}. It is good for 10 minutes.
              </p>
              <label
                >Code <input name="code" inputmode="numeric" autocomplete="one-time-code" required value=${code} onInput=${(e) => setCode(e.target.value)}
              /></label>
              <p>
                <button type="submit" disabled=${busy}>Sign in</button>
                <button type="button" class="link" onClick=${() => setSent(null)}>Use another address</button>
              </p>
            </form>`
          : html`<form onSubmit=${askCode}>
              <p class="muted">Sign in with your e-mail address: we send you a one-time code, no password.</p>
              <label>E-mail <input type="email" name="email" autocomplete="email" required value=${email} onInput=${(e) => setEmail(e.target.value)} /></label>
              <p><button type="submit" disabled=${busy}>Send code</button></p>
            </form>`
      }
      <${Problem} error=${error} />
      ${brand.supportLink ? html`<p class="muted"><a href=${brand.supportLink} rel="noreferrer">Support</a></p>` : null}
    </section>
  </main>`;
};

const Projects = ({ onSignedOut }) => {
  const [me, setMe] = useState(null);
  const [error, setError] = useState(null);
  const [name, setName] = useState('');
  const [created, setCreated] = useState(null);
  const load = () =>
    call('GET', '/customer').then(setMe, (err) => {
      if (err.status === 401 || err.status === 403) {
        sessionStorage.removeItem(TOKEN);
        onSignedOut(err);
      } else setError(err);
    });
  useEffect(() => void load(), []);
  const create = async (e) => {
    e.preventDefault();
    setError(null);
    try {
      setCreated(await call('POST', '/customer/projects', { name: name.trim() }));
      setName('');
      await load();
    } catch (err) {
      setError(err);
    }
  };
  const signOut = async () => {
    await call('DELETE', '/customer/session').catch(() => undefined);
    sessionStorage.removeItem(TOKEN);
    onSignedOut(null);
  };
  if (!me)
    return html`<main>
      <${Problem} error=${error} />
      <p class="muted" aria-live="polite">Loading your projects…</p>
    </main>`;
  return html`<header class="top">
      <strong>${me.brand.name}</strong>
      <span class="who">${me.customer.email}</span>
      <button type="button" class="link" onClick=${signOut}>Sign out</button>
    </header>
    <main>
      <section class="card" aria-labelledby="projects-title">
        <h1 id="projects-title">Your projects</h1>
        ${
          me.projects.length === 0
            ? html`<p class="muted">No project yet.</p>`
            : html`<table>
                <thead>
                  <tr>
                    <th>Name</th>
                    <th>Id</th>
                    <th>Created</th>
                  </tr>
                </thead>
                <tbody>
                  ${me.projects.map(
                    (p) =>
                      html`<tr key=${p.id} data-project=${p.id}>
                        <td>${p.name}</td>
                        <td><code>${p.id}</code></td>
                        <td>${when(p.created)}</td>
                      </tr>`,
                  )}
                </tbody>
              </table>`
        }
        <p class="muted">${me.projects.length} of ${me.maxProjects} projects; up to ${me.maxAccountsPerProject} accounts each.</p>
      </section>
      <section class="card" aria-labelledby="new-project-title">
        <h2 id="new-project-title">New project</h2>
        <form onSubmit=${create}>
          <label>Project name <input name="projectName" required maxlength="255" value=${name} onInput=${(e) => setName(e.target.value)} /></label>
          <p><button type="submit">Create project</button></p>
        </form>
        ${
          created
            ? html`<p class="ok" role="status">
                Project ${created.project.name} created. Its API key, shown only now: <code data-testid="new-key">${created.key}</code>
              </p>`
            : null
        }
        <${Problem} error=${error} />
      </section>
    </main>`;
};

const App = () => {
  const [brand, setBrand] = useState(null);
  const [error, setError] = useState(null);
  const [signedIn, setSignedIn] = useState(Boolean(sessionStorage.getItem(TOKEN)));
  useEffect(() => {
    call('GET', `/whitelabel/${encodeURIComponent(SUBDOMAIN)}/brand`).then((b) => {
      setBrand(b);
      if (/^#[0-9a-fA-F]{3}([0-9a-fA-F]{3})?$/.test(b.authPageBackground)) document.body.style.setProperty('--auth-background', b.authPageBackground);
    }, setError);
  }, []);
  if (error) return html`<main><${Problem} error=${error} /></main>`;
  if (!brand) return html`<main><p class="muted">Loading…</p></main>`;
  if (!signedIn) return html`<${SignIn} brand=${brand} onSignedIn=${() => setSignedIn(true)} />`;
  return html`<${Projects}
    onSignedOut=${(err) => {
      setSignedIn(false);
      if (err) setError(null);
    }}
  />`;
};

render(html`<${App} />`, document.getElementById('app'));
