// LaneSlots: execution slots for due runs, as many places again for runs claimed ahead.
import { describe, expect, it } from 'vitest';
import { LaneSlots } from './lane-slots';

const signal = () => new AbortController().signal;

describe('LaneSlots', () => {
  it('gives claims the free execution slots, less what claims in flight reserved', () => {
    const slots = new LaneSlots(() => 4);
    expect(slots.room()).toBe(4);
    slots.reserve(3);
    expect(slots.room()).toBe(1);
    slots.add(false);
    slots.add(false);
    slots.unreserve(3);
    expect(slots.room()).toBe(2);
  });

  it('does not count runs waiting for their due time against the execution slots, up to as many as there are slots', () => {
    const slots = new LaneSlots(() => 4);
    for (let i = 0; i < 4; i++) slots.add(true);
    expect(slots.room()).toBe(4); // the waiting runs call nothing yet
    for (let i = 0; i < 2; i++) slots.add(true);
    expect(slots.room()).toBe(2); // 6 of the 8 places taken
    slots.add(false);
    slots.add(false);
    expect(slots.room()).toBe(0);
  });

  it('admits a due waiting run at once while a slot is free', () => {
    const slots = new LaneSlots(() => 2);
    slots.add(true);
    expect(slots.admit(signal())).toBe(true);
    expect([slots.executing, slots.waiting]).toEqual([1, 0]);
    slots.remove(false);
    expect([slots.executing, slots.waiting]).toEqual([0, 0]);
  });

  it('queues a due waiting run while every slot executes, first in line before new claims', async () => {
    const slots = new LaneSlots(() => 2);
    slots.add(false);
    slots.add(false);
    slots.add(true);
    const admitted = slots.admit(signal());
    expect(admitted).toBeInstanceOf(Promise);
    expect(slots.queued).toBe(1);
    slots.remove(false); // a slot frees: it goes to the queued run, not to a claim
    await expect(admitted).resolves.toBe(true);
    expect([slots.executing, slots.waiting, slots.queued]).toEqual([2, 0, 0]);
    expect(slots.room()).toBe(0);
  });

  it('keeps a slot a claim in flight reserved from a due waiting run until the claim settles', async () => {
    const slots = new LaneSlots(() => 2);
    slots.add(false);
    slots.reserve(1);
    slots.add(true);
    const admitted = slots.admit(signal());
    expect(admitted).toBeInstanceOf(Promise);
    expect(slots.room()).toBe(0); // the free slot is reserved and then promised to the queued run
    slots.unreserve(1); // the claim found nothing
    await expect(admitted).resolves.toBe(true);
    expect([slots.executing, slots.waiting]).toEqual([2, 0]);
  });

  it('answers false for a queued run stopped before a slot freed, which then ends as waiting', async () => {
    const slots = new LaneSlots(() => 1);
    slots.add(false);
    slots.add(true);
    const abort = new AbortController();
    const admitted = slots.admit(abort.signal);
    abort.abort();
    await expect(admitted).resolves.toBe(false);
    expect(slots.queued).toBe(0);
    slots.remove(true);
    slots.remove(false);
    expect([slots.executing, slots.waiting, slots.room()]).toEqual([0, 0, 1]);
  });

  it('follows the slot count as it changes (a lane closing takes no more claims)', () => {
    let n = 3;
    const slots = new LaneSlots(() => n);
    slots.add(true);
    n = 0;
    expect(slots.room()).toBe(0);
    expect(slots.admit(signal())).toBeInstanceOf(Promise);
  });
});
