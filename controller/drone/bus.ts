// Wiring of the DRONE agent to the MQTT bus client: one codec for every DRONE message kind.
import { BusClient, type BusOptions } from '../../shared/bus/client.ts';
import type { MessageCodec } from '../../shared/bus/codec.ts';
import type { DroneBus } from './agent.ts';
import { droneCodec, type DroneMessage } from './messages/index.ts';

/** A bus client for DRONE messages; share one `codec` among many clients (compiling it takes a while). */
export function droneBusClient(options: BusOptions, codec: MessageCodec<DroneMessage> = droneCodec()): BusClient<DroneMessage> {
  return new BusClient<DroneMessage>(options, codec);
}

export function asDroneBus(client: BusClient<DroneMessage>): DroneBus {
  return {
    publish: (topic, body) => client.publish(topic, body),
    subscribe: (filters, handler) => client.subscribe(filters, (message) => { handler(message); }),
  };
}
