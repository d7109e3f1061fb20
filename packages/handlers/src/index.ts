// The runtime entry (engine): handlers by target kind, the handler interface, and the guard
// every outbound connection opens through. The schema half is re-exported for convenience.
export * from './schemas';
export * from './types';
export * from './registry';
export * from './guard/ssrf-guard';
export { HttpHandler, type HttpHandlerOptions, type HttpTarget } from './http/http';
export { warmHttpClient } from './http/warm-up';
export { AmqpHandler, type AmqpHandlerOptions, type AmqpTarget } from './amqp/amqp';
export { NatsHandler, type NatsHandlerOptions, type NatsTarget } from './nats/nats';
export { ContainerHandler, type ContainerHandlerOptions } from './container/container';
export {
  connectDocker,
  containerName,
  DEFAULT_DOCKER_HOST,
  dockerHostProblem,
  dockerMessage,
  dockerStatus,
  LABELS as CONTAINER_LABELS,
} from './container/docker';
