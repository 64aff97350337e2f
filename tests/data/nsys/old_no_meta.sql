-- A hand-written Nsight Systems export in the older layout (exports before 2021): no metadata table
-- (the version is inferred), NVTX_EVENTS with the text column only, kernels without mangledName,
-- graphId or graphNodeId, memcpys without srcKind/dstKind, no TARGET_INFO_CUDA_DEVICE, no
-- ThreadNames. One thread (pid 99, tid 100), 2 kernels on streams 7 and 14, no step ranges: the
-- whole trace is one step. A thread's name, PROCESSES and a session start are absent too.
CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO StringIds VALUES (1, 'add_kernel'), (2, 'add'), (3, 'cudaLaunchKernel_v7000'), (4, 'cudaMemcpy_v3020');
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (
  start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL,
  streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER, demangledName INTEGER NOT NULL,
  shortName INTEGER NOT NULL, registersPerThread INTEGER NOT NULL, gridX INTEGER NOT NULL, gridY INTEGER NOT NULL,
  gridZ INTEGER NOT NULL, blockX INTEGER NOT NULL, blockY INTEGER NOT NULL, blockZ INTEGER NOT NULL,
  staticSharedMemory INTEGER NOT NULL, dynamicSharedMemory INTEGER NOT NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES
  (500, 900, 0, 1, 7, 11, 99, 1, 2, 8, 4, 1, 1, 256, 1, 1, 0, 0),
  (600, 950, 0, 1, 14, 12, 99, 1, 2, 8, 4, 1, 1, 256, 1, 1, 0, 0);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (
  start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER NOT NULL, globalTid INTEGER,
  correlationId INTEGER, nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES
  (100, 200, 1, (99 << 24) | 100, 11, 3, 0), (210, 300, 1, (99 << 24) | 100, 12, 3, 0),
  (1000, 3000, 1, (99 << 24) | 100, 13, 4, 0);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (
  start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL,
  streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER, bytes INTEGER NOT NULL, copyKind INTEGER NOT NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (1100, 2900, 0, 1, 7, 13, 99, 4000, 1);
CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, text TEXT, globalTid INTEGER);
INSERT INTO NVTX_EVENTS VALUES (50, 3100, 59, 'main loop', (99 << 24) | 100);
