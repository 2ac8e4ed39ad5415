// The one module that talks to the server's JSON API (the live connection is live.js).
// Problems (RFC 9457) become ApiErrors carrying the problem.
export class ApiError extends Error {
  constructor(status, problem) {
    super(problem?.detail || problem?.title || `HTTP ${status}`);
    this.status = status;
    this.problem = problem;
  }
}

export async function api(method, path, { body, credential, headers = {} } = {}) {
  const sent = { Accept: "application/json", ...headers };
  if (body !== undefined) sent["Content-Type"] = "application/json";
  if (credential) sent.Authorization = `Bearer ${credential}`;
  let response;
  try {
    response = await fetch(path, { method, headers: sent, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch {
    throw new ApiError(0, { detail: "The server cannot be reached: check the connection." });
  }
  const data = response.status === 204 ? null : await response.json().catch(() => null);
  if (!response.ok) throw new ApiError(response.status, data);
  return data;
}

// The bytes of a resource that is not JSON (a game's export, JSON lines), with the
// API's problems as ApiErrors.
export async function apiBytes(path) {
  let response;
  try {
    response = await fetch(path);
  } catch {
    throw new ApiError(0, { detail: "The server cannot be reached: check the connection." });
  }
  if (!response.ok) throw new ApiError(response.status, await response.json().catch(() => null));
  return new Uint8Array(await response.arrayBuffer());
}

// A handler of the API's errors for `.catch`: anything else is a bug, and goes on up.
export function problemsOnly(handle) {
  return (error) => {
    if (!(error instanceof ApiError)) throw error;
    return handle(error);
  };
}

export function problemText(error) {
  const fields = error.problem?.errors ? Object.entries(error.problem.errors).map(([k, v]) => `${k}: ${[].concat(v).join(", ")}`) : [];
  return [error.message, ...fields].join(" — ");
}

// A move the store could not take (503: a failover of its Redis takes seconds) is sent
// again, the same with the same Idempotency-Key, after 1, 2, 4 and 8 s: it counts once.
export async function persisting(send, onRetry) {
  for (const pause of [1, 2, 4, 8]) {
    try { return await send(); } catch (error) {
      if (error.status !== 503) throw error;
      onRetry(`${problemText(error)} Sending it again in ${pause} s…`);
      await new Promise((resolve) => setTimeout(resolve, pause * 1000));
    }
  }
  return send();
}

// A random id (an Idempotency-Key): crypto.randomUUID is for secure contexts (https,
// localhost) only; random bytes are everywhere.
export function randomId() {
  return crypto.randomUUID?.() ?? Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join("");
}
