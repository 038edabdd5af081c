import { Injectable } from '@nestjs/common';

/** A Nest provider used by a radix route (injected through the router factory). */
@Injectable()
export class Greeter {
  greet(name: string): { hello: string } {
    return { hello: name };
  }
}
