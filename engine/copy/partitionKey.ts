// The copy engine's partition key: a master account belongs to partition partitionOf(id, count), a
// 32-bit FNV-1a hash of its id modulo the partition count. Fixed forever for a given count: every
// instance must place a master in the same partition (the count is COPY_ENGINE_PARTITIONS).
export const partitionOf = (masterAccountId: string, count: number): number => {
  let hash = 0x811c9dc5;
  for (let i = 0; i < masterAccountId.length; i++) {
    hash ^= masterAccountId.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % count;
};
