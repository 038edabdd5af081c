export { Exchange, TESSERA_EXCHANGE, DEFAULT_BODY_LIMIT_BYTES } from './exchange.js';
export type { Peer, ResponseInit, ResponseSink } from './exchange.js';
export { ResponseStream } from './response-stream.js';
export type { StreamSink } from './response-stream.js';
export { Pipeline } from './pipeline.js';
export type { Middleware, RouteHandler } from './pipeline.js';
export { Router } from './router/router.js';
export type { RouterOptions, RouteDefinition, RouteMatch } from './router/router.js';
export { HTTP_METHODS, RouteRegistrationError } from './router/route-path.js';
export type { HttpMethod } from './router/route-path.js';
export {
  ResponseAlreadySentError,
  HandlerDidNotRespondError,
  BodyAlreadyConsumedError,
  NoValidatedInputError,
  malformedPathError,
  methodNotAllowedError,
  payloadTooLargeError,
  unsupportedMediaTypeError,
  malformedJsonError,
  internalServerError,
} from './errors.js';
export { createTestExchange } from './test-exchange.js';
export type { CapturedResponse, TestExchangeInit } from './test-exchange.js';
export { RouterModule } from './router.module.js';
export { RouterHost } from './router-host.js';
export { ManagementListener, ManagementListenerError, formatAddress } from './management-listener.js';
export { ErrorHandler } from './error-handler.js';
export {
  TESSERA_PIPELINE_MIDDLEWARE,
  TESSERA_ERROR_MAPPER,
  TESSERA_ROUTER_ERROR_RENDERER,
  ROUTER_MODULE_CONFIG,
} from './router.options.js';
export { respondRouterError, deferRouterError, MALFORMED_PATH } from './router-errors.js';
export type { RouterLevelError, RouterErrorRenderer } from './router-errors.js';
export type {
  ErrorMapper,
  PipelineMiddlewareContribution,
  RouterEntry,
  RouterModuleOptions,
  RouterModuleConfig,
  RouterModuleAsyncConfig,
  RouterFeatureConfig,
  RouterListener,
  ManagementListenerOptions,
} from './router.options.js';
export { onHttpAdapterInit } from './adapter-init.hook.js';
export type { HttpAdapter, AdapterInitHooks } from './adapter-init.hook.js';
export { RouterRegistration } from './router-registration.js';
