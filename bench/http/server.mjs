// One Nest app with the GitHub route table (~300 routes) registered either through Tessera's
// RouterModule (`--mode express` or `--mode server`) or as Nest controller routes (`--mode nest`).
// Every route answers the same handler: the text "hello world". Prints the port when listening.
import 'reflect-metadata';
import { Controller, Get, Post, Put, Patch, Delete, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Router, RouterModule } from '@tessera/web';
import { githubRoutes } from '../router/github-routes.mjs';

const mode = process.argv[process.argv.indexOf('--mode') + 1];
const BODY = 'hello world';

function radixRouter() {
  const router = new Router();
  const handler = (ex) => ex.respond({ body: BODY });
  for (const { method, path } of githubRoutes) router.add(method, path, handler);
  return router;
}

function nestController() {
  const decorators = { GET: Get, POST: Post, PUT: Put, PATCH: Patch, DELETE: Delete };
  class RoutesController {}
  githubRoutes.forEach(({ method, path }, i) => {
    const name = `route${i}`;
    RoutesController.prototype[name] = function () {
      return BODY;
    };
    const descriptor = Object.getOwnPropertyDescriptor(RoutesController.prototype, name);
    decorators[method](path)(RoutesController.prototype, name, descriptor);
  });
  Controller()(RoutesController);
  return RoutesController;
}

const imports =
  mode === 'nest' || mode === 'ceiling'
    ? []
    : [RouterModule.forRoot({ routers: [{ useValue: radixRouter() }], options: { mount: mode } })];
const controllers = mode === 'nest' ? [nestController()] : [];
class AppModule {}
Module({ imports, controllers })(AppModule);

const app = await NestFactory.create(AppModule, { logger: false });
// Reference ceiling: the first Express middleware of the same app answering with res.end.
if (mode === 'ceiling') app.use((req, res) => res.end(BODY));
await app.listen(0, '127.0.0.1');
const { port } = app.getHttpServer().address();
process.stdout.write(`${port}\n`);
process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
