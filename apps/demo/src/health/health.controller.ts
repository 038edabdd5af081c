import { Controller, Get, HttpCode, ServiceUnavailableException } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/core';

/** `GET /health`: 200 `{ status: 'ok', database: 'up' }`, or 503 when the database does not answer. */
@Controller('health')
export class HealthController {
  constructor(private readonly em: EntityManager) {}

  @Get()
  @HttpCode(200)
  async check(): Promise<{ status: 'ok'; database: 'up' }> {
    try {
      await this.em.fork().getConnection().execute('select 1');
    } catch {
      throw new ServiceUnavailableException({ statusCode: 503, message: 'Database unavailable' });
    }
    return { status: 'ok', database: 'up' };
  }
}
