// Shifu's HTTP mock devices and their answers, one route table each.
import { randomInt, statusRoute, type MockRoute } from './http-device.ts';
import { PlcMemory } from './plc-memory.ts';

export const thermometer = (): Record<string, MockRoute> => ({
  get_status: statusRoute,
  read_value: () => ({ body: String(randomInt(10, 31)) }),
});

export const agv = (): Record<string, MockRoute> => ({
  get_status: statusRoute,
  get_position: () => ({ body: `xpos: ${randomInt(0, 100)}, ypos: ${randomInt(0, 200)}` }),
});

export const robotArm = (): Record<string, MockRoute> => ({
  get_status: statusRoute,
  get_coordinate: () => ({ body: `xpos: ${randomInt(0, 100)}, ypos: ${randomInt(0, 200)}, zpos: ${randomInt(0, 300)}` }),
});

function measurement(): string {
  const row = (): string => Array.from({ length: 12 }, () => (Math.floor(Math.random() * 300) / 100).toFixed(2)).join(' ');
  return Array.from({ length: 8 }, row).join('\n');
}

export const plateReader = (): Record<string, MockRoute> => ({
  get_status: statusRoute,
  get_measurement: () => ({ body: measurement() }),
});

export const plc = (): Record<string, MockRoute> => {
  const memory = new PlcMemory();
  return {
    get_status: statusRoute,
    getcontent: (query) => memory.read(query.get('rootaddress') ?? ''),
    sendsinglebit: (query) => memory.setBit(query),
  };
};
