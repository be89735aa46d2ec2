/**
 * Which endpoint an event goes to. The primary first; the backup when the primary does not take the
 * event (or there is none), and as the failover target when the primary is exhausted. A paused endpoint
 * still gets its deliveries queued: pausing holds them, it does not promote the other endpoint.
 */
import { subscribes } from './event-types';

export interface EndpointRoute {
  id: string;
  role: 'primary' | 'backup';
  events: string[] | null;
}

export function initialTarget(endpoints: EndpointRoute[], eventType: string): EndpointRoute | null {
  const ordered = [...endpoints].sort((a, b) => (a.role === b.role ? 0 : a.role === 'primary' ? -1 : 1));
  return ordered.find((e) => subscribes(e.events, eventType)) ?? null;
}

/** The account's other endpoint that takes this event, for the one failover a delivery gets. */
export function failoverTarget(endpoints: EndpointRoute[], currentId: string, eventType: string): EndpointRoute | null {
  return endpoints.find((e) => e.id !== currentId && subscribes(e.events, eventType)) ?? null;
}
