/**
 * Runs tasks of the same key one after another, in arrival order, and tasks of different keys
 * concurrently. Submissions of one flow on one replica then never race each other; a race across
 * replicas is still settled by the store's version check.
 */
export class KeyedSerializer {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const result = previous.then(task, task);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }

  /** Keys with a task running or waiting (for tests and metrics). */
  get size(): number {
    return this.tails.size;
  }
}
