// What deps.api opens, loaded on its first call: --help and --version load none of it.
import { PetsApi } from '../api/client.js';
import { parseErrorBody } from '../api/validate.js';
import { normalizedOrigin } from '../config/base-url.js';
import { keyFingerprint } from '../config/key-fingerprint.js';
import { checkStateFolderAndFiles } from '../config/owned-files.js';
import { configDir, type Env } from '../config/paths.js';
import type { ApiTarget } from '../config/resolve-target.js';
import type { Clock } from '../core/clock.js';
import { processName, seeProcess } from '../core/process-alive.js';
import type { Secrets } from '../core/redact.js';
import { packageVersion } from '../core/version.js';
import { proxySettings, type ProxySettings } from '../http/proxy-env.js';
import { tracingSender } from '../http/trace.js';
import { createTransport, type Transport } from '../http/transport.js';
import type { HttpSender } from '../http/types.js';
import { RateGate } from '../ratelimit/gate.js';
import { CLAIM_SLACK_MS } from '../ratelimit/policy.js';
import { RATE_LIMIT_HEADERS } from '../ratelimit/rate-headers.js';
import { fileStore, stateName, type StateStore } from '../ratelimit/state-store.js';
import { waitLimits } from '../ratelimit/wait-limits.js';
import type { HttpSettings, KeyApi } from '../cmd/shared/deps.js';

const MAX_BODY_BYTES = 8 * 1024 * 1024;
const USER_AGENT = `pets/${packageVersion()} node/${process.versions.node} ${process.platform}`;

/**
 * One gate per key and server for the whole process: a 429 seen by one request holds back
 * all, and the state it shares with other pets processes is the key's, whatever profile or
 * spelling of the address led to it. A gate keeps the settings it was opened with, so a
 * second call for its key must ask for the same ones (login asks again after a typo).
 */
export class ApiOpener {
  private readonly transports: Transport[] = [];
  private readonly gates = new Map<string, { gate: Promise<RateGate>; settings: HttpSettings }>();
  /** The environment's proxies, read once per run. */
  private proxy?: ProxySettings | null;

  constructor(
    private readonly env: Env,
    private readonly clock: Clock,
    private readonly secrets: Secrets,
  ) {}

  async open(target: ApiTarget, settings: HttpSettings): Promise<KeyApi> {
    this.secrets.add(target.apiKey).add(target.rateStore?.password);
    const name = stateName(normalizedOrigin(target.baseUrl), keyFingerprint(target.apiKey));
    let opened = this.gates.get(name);
    if (opened && !sameSettings(opened.settings, settings)) {
      throw new Error(`the API of one key was opened twice in a run, with other settings`);
    }
    if (!opened) {
      opened = { gate: this.openGate(target, name, settings), settings };
      this.gates.set(name, opened);
      // A store that could not be opened is tried again by the next call.
      opened.gate.catch(() => this.gates.delete(name));
    }
    const gate = await opened.gate;
    if (settings.batch) await gate.requireShared();
    const { secrets } = this;
    return { api: new PetsApi({ target, secrets, send: gate.send, userAgent: USER_AGENT }), gate };
  }

  /** Claims a gate took ahead and did not use go back to the shared state. */
  async close(closeSockets: boolean): Promise<void> {
    await Promise.all([...this.gates.values()].map(async ({ gate }) => (await gate).finish()));
    if (closeSockets) await Promise.all(this.transports.map((t) => t.close()));
  }

  private async openGate(target: ApiTarget, name: string, settings: HttpSettings) {
    return new RateGate({
      send: this.sender(settings),
      clock: this.clock,
      random: Math.random,
      ...waitLimits({ batch: settings.batch, maxWaitSeconds: settings.maxWaitSeconds }),
      store: await this.store(target, name, settings.warn),
      claimMs: settings.timeoutMs + CLAIM_SLACK_MS,
      // A claim is named `<pid>.<PID namespace>.…`: one of a process seen gone in this
      // namespace is void at once; one of a process that cannot be seen (a container sharing
      // the folder, another machine sharing a store) lapses as a lease (gate.ts).
      processes: { self: processName(), see: seeProcess },
      wait: settings.wait,
      trace: settings.trace,
      warn: settings.warn,
      redact: (text) => this.secrets.redact(text),
      errorCode: (body) => parseErrorBody(body)?.code,
    });
  }

  private sender(settings: HttpSettings): HttpSender {
    this.proxy ??= proxySettings(this.env) ?? null;
    const { https, http } = this.proxy ?? {};
    for (const secret of [...(https?.secrets ?? []), ...(http?.secrets ?? [])]) {
      this.secrets.add(secret);
    }
    const transport = createTransport({
      timeoutMs: settings.timeoutMs,
      maxBodyBytes: MAX_BODY_BYTES,
      proxy: this.proxy ?? undefined,
    });
    this.transports.push(transport);
    if (!settings.trace) return transport.send;
    const shown = Object.values(RATE_LIMIT_HEADERS);
    return tracingSender(transport.send, settings.trace, this.clock.now, shown, transport.proxyFor);
  }

  private async store(
    target: ApiTarget,
    name: string,
    warn: HttpSettings['warn'],
  ): Promise<StateStore> {
    if (target.rateStore) {
      const { openRedisStore } = await import('../ratelimit/redis-store.js');
      return openRedisStore(target.rateStore, name, (text) => this.secrets.redact(text), { warn });
    }
    const store = fileStore(configDir(this.env), name, warn);
    // What decides when pets may send is trusted only from a folder that is the user's.
    checkStateFolderAndFiles(store.folder!);
    return store;
  }
}

/** The same settings: the same values, and the same functions (Session makes each once). */
const sameSettings = (a: HttpSettings, b: HttpSettings): boolean =>
  Object.keys({ ...a, ...b }).every((key) => Object.is(a[key as 'wait'], b[key as 'wait']));
