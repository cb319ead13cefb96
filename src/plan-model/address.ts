/**
 * Addresses: `kind.local-name` (`project.payments`, `gateway_token.prod/ci`).
 * The kind is the part before the first dot, the local name everything after it.
 */
import type { ResourceKind } from '../config/types.js';

/** The part of an address after `kind.`: `project.payments` -> `payments`. */
export function localPart(address: string): string {
  return address.slice(address.indexOf('.') + 1);
}

/** The kind named by an address: `gateway.prod` -> `gateway`. */
export function kindOfAddress(address: string): string {
  return address.slice(0, address.indexOf('.'));
}

export function addressOf(kind: ResourceKind, localName: string): string {
  return `${kind}.${localName}`;
}
