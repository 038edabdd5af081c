import { Router } from '@tessera/web';
import type { Greeter } from './greeter.service.js';

/** `GET /hello/:name` on the radix router: `{ "hello": "<decoded name>" }`. */
export function helloRouter(greeter: Greeter): Router {
  return new Router().get('/hello/:name', (exchange) =>
    exchange.respond({ body: greeter.greet(exchange.pathParam('name')!) }),
  );
}
