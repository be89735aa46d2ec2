/** Encodes and decodes the records of the declared topics in the Confluent wire format. */
import type { SchemaRegistry } from '@kafkajs/confluent-schema-registry';
import type { Command } from '../../domain/commands';
import type { DomainEvent } from '../../domain/events';
import type { TopicKey } from '../../../topics';
import type { TopicCodec } from './registry';
import { commandFromWire, commandToWire, type WireCommand } from './commands';
import { eventFromWire, eventToWire, type WireEvent } from './events';
import type { OrderEvent } from '../../domain/order-events';
import { orderEventFromWire, orderEventToWire, type WireOrderEvent } from './order-events';

export class LogCodec {
  constructor(
    private readonly registry: SchemaRegistry,
    readonly topics: Record<TopicKey, TopicCodec>,
    private readonly network: 'mainnet' | 'nile',
  ) {}

  topicName(key: TopicKey): string {
    return this.topics[key].topic;
  }

  async encodeCommand(command: Command): Promise<{ key: Buffer; value: Buffer }> {
    const t = this.topics.accountCommands;
    return {
      key: await this.registry.encode(t.keyId, { account_id: command.accountId }),
      value: await this.registry.encode(t.valueId, commandToWire(command)),
    };
  }

  async decodeCommand(value: Buffer): Promise<Command> {
    return commandFromWire((await this.registry.decode(value)) as WireCommand);
  }

  async encodeEvent(event: DomainEvent): Promise<{ key: Buffer; value: Buffer }> {
    const t = this.topics.accountEvents;
    return {
      key: await this.registry.encode(t.keyId, { account_id: event.accountId }),
      value: await this.registry.encode(t.valueId, eventToWire(event, this.network)),
    };
  }

  async decodeEvent(value: Buffer): Promise<ReturnType<typeof eventFromWire>> {
    return eventFromWire((await this.registry.decode(value)) as WireEvent);
  }

  async encodeOrderEvent(event: OrderEvent): Promise<{ key: Buffer; value: Buffer }> {
    const t = this.topics.orderEvents;
    return {
      key: await this.registry.encode(t.keyId, { account_id: event.accountId }),
      value: await this.registry.encode(t.valueId, orderEventToWire(event, this.network)),
    };
  }

  async decodeOrderEvent(value: Buffer): Promise<ReturnType<typeof orderEventFromWire>> {
    return orderEventFromWire((await this.registry.decode(value)) as WireOrderEvent);
  }
}
