// Types for the two parts of undici that pets loads by path (see transport.ts), taken from
// undici's own: the Agent class, and the request function that undici's index wraps.
declare module 'undici/lib/dispatcher/agent.js' {
  import type { Agent } from 'undici';
  const AgentClass: typeof Agent;
  export default AgentClass;
}

declare module 'undici/lib/api/api-request.js' {
  import type { Dispatcher } from 'undici';
  /** Called on a dispatcher, with the URL already split into origin and path. */
  function request(
    this: Dispatcher,
    options: Dispatcher.RequestOptions,
  ): Promise<Dispatcher.ResponseData>;
  export default request;
}

declare module 'undici/lib/dispatcher/proxy-agent.js' {
  import type { ProxyAgent } from 'undici';
  const ProxyAgentClass: typeof ProxyAgent;
  export default ProxyAgentClass;
}

declare module 'undici/lib/dispatcher/dispatcher.js' {
  import type { Dispatcher } from 'undici';
  const DispatcherClass: typeof Dispatcher;
  export default DispatcherClass;
}

declare module 'undici/lib/api/api-connect.js' {
  import type { Dispatcher } from 'undici';
  /** Opens a CONNECT tunnel through the dispatcher it is called on. */
  function connect(
    this: Dispatcher,
    options: Dispatcher.ConnectOptions,
  ): Promise<Dispatcher.ConnectData>;
  export default connect;
}

declare module 'undici/lib/dispatcher/pool.js' {
  import type { Pool } from 'undici';
  const PoolClass: typeof Pool;
  export default PoolClass;
}
