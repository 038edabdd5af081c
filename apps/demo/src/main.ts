import 'reflect-metadata';
import { Controller, Get, Injectable, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { hello } from '@tessera/web';
@Injectable() class S { v() { return hello('x'); } }
@Controller() class C { constructor(private readonly s: S) {} @Get('/') g() { return this.s.v(); } }
@Module({ controllers: [C], providers: [S] }) class M {}
const app = await NestFactory.create(M, { logger: false });
await app.listen(0);
console.log(await (await fetch(await app.getUrl())).text());
await app.close();
