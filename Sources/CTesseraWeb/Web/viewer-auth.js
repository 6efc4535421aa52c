// The IIIF Authorization Flow 2.0, client side: read the services an image description names,
// probe, open the access service (a login page) on the user's click, fetch a probe token from the
// token service through a hidden iframe, probe again, and log out. The tiles themselves are
// authorised by the cookie the access service sets, which the browser sends with them.

/** How long the token service may take to answer (ms) before the attempt is given up. */
const TOKEN_TIMEOUT = 10000;
/** How long a login window may stay open (ms) before the viewer stops waiting for it. */
const WINDOW_TIMEOUT = 10 * 60 * 1000;

/** The first string of a language map (`{"en": ["…"]}`), or "". */
export function textOf(map) {
  if (!map || typeof map !== "object") return "";
  for (const values of Object.values(map)) if (Array.isArray(values) && typeof values[0] === "string") return values[0];
  return "";
}

const isHTTP = (url) => typeof url === "string" && /^https?:\/\//.test(url);
const ofType = (list, type) => (Array.isArray(list) ? list : []).find((service) => service?.type === type && isHTTP(service.id));

/**
 * The Authorization Flow services a description (an info.json, or the 401 answer in its place)
 * names: probe, an active access service with its token service, and logout when there is one;
 * or null when it names none a browser can use.
 */
export function authServicesOf(description) {
  const probe = ofType(description?.service, "AuthProbeService2");
  const access = (Array.isArray(probe?.service) ? probe.service : []).find(
    (service) => service?.type === "AuthAccessService2" && service.profile === "active" && isHTTP(service.id),
  );
  const token = ofType(access?.service, "AuthAccessTokenService2");
  if (!probe || !access || !token) return null;
  const logout = ofType(access.service, "AuthLogoutService2");
  return {
    probe: probe.id,
    access: access.id,
    token: token.id,
    logout: logout?.id ?? null,
    heading: textOf(access.heading) || textOf(access.label),
    note: textOf(access.note),
    confirmLabel: textOf(access.confirmLabel) || "Sign in",
    logoutLabel: textOf(logout?.label) || "Sign out",
  };
}

/** Resolves when `opened` (a window) has closed; rejects when it could not be opened. */
function closing(opened) {
  if (!opened) return Promise.reject(new Error("the browser blocked the window; allow pop-ups for this page."));
  return new Promise((resolve) => {
    const started = Date.now();
    const timer = setInterval(() => {
      if (opened.closed || Date.now() - started > WINDOW_TIMEOUT) {
        clearInterval(timer);
        resolve();
      }
    }, 250);
  });
}

/** Probe tokens by token service, and the flow's steps. */
export class AuthClient {
  #tokens = new Map();
  #messages = 0;

  /** What the probe service says now: `{status, heading, note, substitute}`. */
  async probe(services) {
    const token = this.#tokens.get(services.token);
    const headers = token && token.expires > Date.now() ? { Authorization: `Bearer ${token.value}` } : {};
    const response = await fetch(services.probe, { headers, credentials: "include", cache: "no-store" });
    const result = await response.json().catch(() => ({}));
    return {
      status: Number(result.status) || response.status,
      heading: textOf(result.heading) || services.heading,
      note: textOf(result.note) || services.note,
      substitute: Array.isArray(result.substitute) ? result.substitute : [],
    };
  }

  /** Opens the access service (call from the user's click: browsers block other pop-ups) and
   * resolves once its window has closed; then fetches a token. */
  async logIn(services) {
    const url = `${services.access}${services.access.includes("?") ? "&" : "?"}origin=${encodeURIComponent(location.origin)}`;
    await closing(window.open(url, "tessera-access", "popup,width=480,height=640"));
    await this.fetchToken(services);
  }

  /** Loads the token service in a hidden iframe and keeps the token it posts, if it posts one
   * from its own origin with this request's message id; resolves either way. */
  fetchToken(services) {
    const messageId = `m${++this.#messages}-${Date.now()}`;
    const origin = new URL(services.token).origin;
    return new Promise((resolve) => {
      const frame = document.createElement("iframe");
      frame.hidden = true;
      frame.title = "Access token";
      const finish = () => {
        clearTimeout(timer);
        window.removeEventListener("message", listen);
        frame.remove();
        resolve();
      };
      const listen = (event) => {
        if (event.origin !== origin || event.data?.messageId !== messageId) return;
        if (event.data.type === "AuthAccessToken2" && typeof event.data.accessToken === "string") {
          const seconds = Number(event.data.expiresIn) || 300;
          this.#tokens.set(services.token, { value: event.data.accessToken, expires: Date.now() + seconds * 1000 });
        } else {
          this.#tokens.delete(services.token);
        }
        finish();
      };
      const timer = setTimeout(finish, TOKEN_TIMEOUT);
      window.addEventListener("message", listen);
      const separator = services.token.includes("?") ? "&" : "?";
      frame.src = `${services.token}${separator}messageId=${encodeURIComponent(messageId)}&origin=${encodeURIComponent(location.origin)}`;
      document.body.append(frame);
    });
  }

  /** Forgets the token and opens the logout service (from the user's click), resolving once its
   * window has closed. */
  async logOut(services) {
    this.#tokens.delete(services.token);
    if (services.logout) await closing(window.open(services.logout, "tessera-access", "popup,width=480,height=320"));
  }
}
