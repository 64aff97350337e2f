-- A hand-written Nsight Systems export in the older layout (exports before 2021): no metadata table
-- (the version is inferred), NVTX_EVENTS with the text column only, kernels without mangledName,
-- graphId or graphNodeId, memcpys without srcKind/dstKind, no TARGET_INFO_CUDA_DEVICE, no
-- ThreadNames. One thread (pid 99, tid 100), 2 kernels on streams 7 and 14, no step ranges: the
-- whole trace is one step. A thread's name, PROCESSES and a session start are absent too. Columns are
-- declared INT, as the 2020 exporter's schema reference shows them (INTEGER in later versions).
CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO StringIds VALUES (1, 'add_kernel'), (2, 'add'), (3, 'cudaLaunchKernel_v7000'), (4, 'cudaMemcpy_v3020');
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (
  start INT NOT NULL, end INT NOT NULL, deviceId INT NOT NULL, contextId INT NOT NULL,
  streamId INT NOT NULL, correlationId INT, globalPid INT, demangledName INT NOT NULL,
  shortName INT NOT NULL, registersPerThread INT NOT NULL, gridX INT NOT NULL, gridY INT NOT NULL,
  gridZ INT NOT NULL, blockX INT NOT NULL, blockY INT NOT NULL, blockZ INT NOT NULL,
  staticSharedMemory INT NOT NULL, dynamicSharedMemory INT NOT NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES
  (500, 900, 0, 1, 7, 11, 99, 1, 2, 8, 4, 1, 1, 256, 1, 1, 0, 0),
  (600, 950, 0, 1, 14, 12, 99, 1, 2, 8, 4, 1, 1, 256, 1, 1, 0, 0);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (
  start INT NOT NULL, end INT NOT NULL, eventClass INT NOT NULL, globalTid INT,
  correlationId INT, nameId INT NOT NULL, returnValue INT NOT NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES
  (100, 200, 1, (99 << 24) | 100, 11, 3, 0), (210, 300, 1, (99 << 24) | 100, 12, 3, 0),
  (1000, 3000, 1, (99 << 24) | 100, 13, 4, 0);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (
  start INT NOT NULL, end INT NOT NULL, deviceId INT NOT NULL, contextId INT NOT NULL,
  streamId INT NOT NULL, correlationId INT, globalPid INT, bytes INT NOT NULL, copyKind INT NOT NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (1100, 2900, 0, 1, 7, 13, 99, 4000, 1);
CREATE TABLE NVTX_EVENTS (start INT NOT NULL, end INT, eventType INT NOT NULL, text TEXT, globalTid INT);
INSERT INTO NVTX_EVENTS VALUES (50, 3100, 59, 'main loop', (99 << 24) | 100);
