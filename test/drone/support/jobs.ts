// Small builders for jobs and components in DRONE tests.
import type { Component, Job } from '../../../controller/drone/model.ts';

export function component(name: string, cpu: number, memory: number, extra: Partial<Component> = {}): Component {
  return { name, image: `registry.example/${name}:1`, resources: { cpu, memory }, ...extra };
}

export function job(app: string, origin: string, components: Component[], extra: Partial<Job> = {}): Job {
  return { app, origin, components, ...extra };
}
