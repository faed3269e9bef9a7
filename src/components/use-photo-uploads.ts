import { useEffect, useRef, useState } from 'react';
import { compressImage } from '../lib/compress-image';
import {
  IMAGE_MAX_BYTES,
  admitPhotos,
  forgetLocalPhotos,
  isLocalPhoto,
  isNetworkFailure,
  joinFileNames,
  keepLocalPhoto,
  localPhotoBlob,
  notImageMessage,
  settleLocalPhoto,
  splitFileNames,
  trackPhoto,
  uploadFile,
  type PhotoOutcome,
} from '../lib/files';
import { toast } from '../lib/toast';
import { onlineNow, useOnline } from '../lib/use-online';

/**
 * What happens to a photo still on the device: being compressed, being sent,
 * waiting for the network ('待上传', kept in the value), or refused by the
 * server (kept out of the value until the person retries or removes it).
 */
export type Stage = 'compressing' | 'uploading' | 'waiting' | 'failed';
export interface LocalState {
  stage: Stage;
  percent: number;
  error?: string;
}

/** Two uploads at a time: quicker than one by one, gentler on a mobile uplink than all at once. */
const PARALLEL_UPLOADS = 2;

/**
 * The photo field's uploads, apart from how they are shown: photos picked are
 * kept on the device and compressed, sent two at a time, left waiting while
 * offline and sent when the network is back, refused ones kept aside to retry;
 * each settled photo replaces its local URL in the field's value.
 */
export function usePhotoUploads(value: string | null | undefined, onChange: ((value: string) => void) | undefined, max: number) {
  const parts = splitFileNames(value);
  // Uploads finish after renders: they edit the latest value, not the one they started with.
  const partsRef = useRef(parts);
  partsRef.current = parts;
  const onChangeRef = useRef(onChange);
  onChangeRef.current = onChange;
  const [local, setLocal] = useState<Record<string, LocalState>>({});
  const localRef = useRef(local);
  localRef.current = local;
  /** Photos uploaded here keep showing from the device instead of loading again. */
  const [previews, setPreviews] = useState<Record<string, string>>({});
  const previewsRef = useRef(previews);
  previewsRef.current = previews;
  const aborts = useRef(new Map<string, AbortController>());
  /** What a form waiting on a scheduled photo is told when it is done (trackPhoto). */
  const outcomes = useRef(new Map<string, (o: PhotoOutcome) => void>());
  const queue = useRef<string[]>([]);
  const active = useRef(0);
  const mounted = useRef(true);
  const online = useOnline();

  const commit = (next: string[]) => {
    partsRef.current = next;
    onChangeRef.current?.(joinFileNames(next));
  };
  const patch = (url: string, change: Partial<LocalState>) =>
    setLocal((m) => {
      const next = { ...m, [url]: { ...(m[url] ?? { stage: 'waiting', percent: 0 }), ...change } };
      localRef.current = next;
      return next;
    });
  const unset = (url: string) =>
    setLocal((m) => {
      if (!(url in m)) return m;
      const { [url]: _gone, ...rest } = m;
      localRef.current = rest;
      return rest;
    });

  const finish = (url: string, outcome: PhotoOutcome) => {
    outcomes.current.get(url)?.(outcome);
    outcomes.current.delete(url);
  };

  const send = async (url: string) => {
    // Anything but an upload or a refusal leaves the photo on the device.
    let outcome: PhotoOutcome = { waiting: true };
    const abort = new AbortController();
    try {
      if (!partsRef.current.includes(url)) return;
      if (!onlineNow()) return patch(url, { stage: 'waiting', percent: 0, error: undefined });
      aborts.current.set(url, abort);
      // Compression started when the photo was picked: its progress stays on the tile.
      patch(url, { stage: 'compressing', error: undefined });
      const blob = await localPhotoBlob(url);
      if (abort.signal.aborted) return;
      if (blob.size > IMAGE_MAX_BYTES) throw new Error(`图片压缩后仍超过${IMAGE_MAX_BYTES / 1024 / 1024}MB，请换一张`);
      patch(url, { stage: 'uploading', percent: 0 });
      const name = await uploadFile(blob, (percent) => mounted.current && patch(url, { percent }), abort.signal);
      if (abort.signal.aborted) return;
      const at = partsRef.current.indexOf(url);
      if (at < 0) return; // removed while it was being sent
      settleLocalPhoto(url);
      setPreviews((p) => ({ ...p, [name]: url }));
      commit(partsRef.current.map((p, i) => (i === at ? name : p)));
      unset(url);
      outcome = { name };
    } catch (err) {
      if (abort.signal.aborted || !mounted.current) return;
      if (isNetworkFailure(err)) {
        patch(url, { stage: 'waiting', percent: 0 });
        return;
      }
      // The server refused this photo: it leaves the value (a form must not save it), the tile stays to retry or remove.
      const message = err instanceof Error ? err.message : '上传失败';
      commit(partsRef.current.filter((p) => p !== url));
      patch(url, { stage: 'failed', percent: 0, error: message });
      toast(message, 'fail');
      outcome = { refused: message };
    } finally {
      if (aborts.current.get(url) === abort) aborts.current.delete(url);
      finish(url, outcome);
    }
  };

  const pump = () => {
    while (active.current < PARALLEL_UPLOADS && queue.current.length) {
      const url = queue.current.shift()!;
      active.current++;
      void send(url).finally(() => {
        active.current--;
        if (mounted.current) pump();
      });
    }
  };
  const schedule = (urls: string[]) => {
    const fresh = urls.filter((u) => !queue.current.includes(u) && !aborts.current.has(u));
    if (!fresh.length) return;
    for (const url of fresh) {
      if (outcomes.current.has(url)) continue;
      trackPhoto(url, new Promise<PhotoOutcome>((resolve) => outcomes.current.set(url, resolve)));
    }
    queue.current.push(...fresh);
    pump();
  };

  // Local photos the field did not add itself (a value handed back to a remounted field) wait like any other.
  const unknownLocal = parts.filter((p) => isLocalPhoto(p) && !(p in local));
  useEffect(() => {
    if (!unknownLocal.length) return;
    for (const url of unknownLocal) patch(url, { stage: 'waiting', percent: 0 });
    if (onlineNow()) schedule(unknownLocal);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [unknownLocal.join(';')]);

  // Back online: send what waited.
  useEffect(() => {
    if (!online) return;
    schedule(partsRef.current.filter((p) => isLocalPhoto(p) && localRef.current[p]?.stage === 'waiting'));
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [online]);

  // Leaving the form cancels uploads in flight (the photos stay in the value, as local ones)
  // and frees the previews of photos already stored.
  useEffect(() => {
    mounted.current = true;
    const inFlight = aborts.current; // the one Map for the component's life
    const waiters = outcomes.current;
    return () => {
      mounted.current = false;
      for (const a of inFlight.values()) a.abort();
      inFlight.clear();
      queue.current = [];
      for (const resolve of waiters.values()) resolve({ waiting: true });
      waiters.clear();
      for (const url of Object.values(previewsRef.current)) URL.revokeObjectURL(url);
    };
  }, []);

  const failed = Object.entries(local).filter(([url, s]) => s.stage === 'failed' && !parts.includes(url));
  const count = parts.length + failed.length;

  /** Photos chosen or taken: the images among them up to the field's limit, shown at once and compressed behind. */
  const add = (files: File[]) => {
    if (!files.length) return;
    const images = files.filter((f) => !f.type || f.type.startsWith('image/'));
    const others = files.filter((f) => !images.includes(f));
    if (others.length) toast(notImageMessage(others.map((f) => f.name)), 'fail');
    const { accept, message } = admitPhotos(count, images.length, max);
    if (message) toast(message);
    const added: string[] = [];
    for (const file of images.slice(0, accept)) {
      // The thumbnail shows the photo as taken at once; compression runs in a worker behind it.
      let url = '';
      const progress = (percent: number) => {
        if (mounted.current && localRef.current[url]?.stage === 'compressing') patch(url, { percent });
      };
      url = keepLocalPhoto(file, compressImage(file, { onProgress: progress }));
      added.push(url);
      patch(url, { stage: onlineNow() ? 'compressing' : 'waiting', percent: 0 });
    }
    if (!added.length) return;
    commit([...partsRef.current, ...added]);
    if (onlineNow()) schedule(added);
    else toast('当前无网络，照片已保存在本机，联网后自动上传');
  };

  const remove = (part: string) => {
    aborts.current.get(part)?.abort();
    queue.current = queue.current.filter((u) => u !== part);
    finish(part, { waiting: true });
    if (partsRef.current.includes(part)) commit(partsRef.current.filter((p) => p !== part));
    if (isLocalPhoto(part)) {
      unset(part);
      forgetLocalPhotos([part]);
    }
    const preview = previewsRef.current[part];
    if (preview) {
      URL.revokeObjectURL(preview);
      setPreviews(({ [part]: _gone, ...rest }) => rest);
    }
  };

  const retry = (url: string) => {
    if (!onlineNow()) return void toast('当前无网络，联网后自动上传');
    if (!partsRef.current.includes(url)) commit([...partsRef.current, url]);
    patch(url, { stage: 'compressing', percent: 0, error: undefined });
    schedule([url]);
  };

  return { parts, local, previews, failed, count, online, add, remove, retry };
}
