/* A JVMTI agent writing perf's map of JIT-compiled code, /tmp/perf-<pid>.map ("START SIZE NAME"
 * per line, the format `perf report`/`perf script` read for anonymous executable memory), so that
 * samples in compiled Java code get method names. Compiled methods are named
 * "Lpkg/Class;.method(sig)"; other generated code (stubs, the interpreter) by HotSpot's name.
 * Build: cc -shared -fPIC -O2 -I$JDK/include -I$JDK/include/linux perfmap.c -o libperfmap.so
 * Use:   java -agentpath:/path/libperfmap.so ...
 * An entry is written when the code is loaded and not removed when it is unloaded (perf takes
 * the last entry covering an address), which is enough for a profile of a steady state. */
#include <jvmti.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static FILE *map;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void emit(const void *addr, jint size, const char *a, const char *b, const char *c) {
  pthread_mutex_lock(&lock);
  if (map != NULL) {
    fprintf(map, "%lx %x %s%s%s\n", (unsigned long) addr, (unsigned) size, a, b, c);
    fflush(map);
  }
  pthread_mutex_unlock(&lock);
}

static void JNICALL compiled_method_load(jvmtiEnv *jvmti, jmethodID method, jint size, const void *addr,
                                         jint map_length, const jvmtiAddrLocationMap *locs, const void *info) {
  char *name = NULL, *sig = NULL, *csig = NULL;
  jclass klass;
  (void) map_length; (void) locs; (void) info;
  if ((*jvmti)->GetMethodName(jvmti, method, &name, &sig, NULL) != JVMTI_ERROR_NONE) return;
  if ((*jvmti)->GetMethodDeclaringClass(jvmti, method, &klass) == JVMTI_ERROR_NONE &&
      (*jvmti)->GetClassSignature(jvmti, klass, &csig, NULL) == JVMTI_ERROR_NONE) {
    char full[1024];
    snprintf(full, sizeof full, "%s.%s", csig, name);
    emit(addr, size, full, sig, "");
  }
  (*jvmti)->Deallocate(jvmti, (unsigned char *) name);
  (*jvmti)->Deallocate(jvmti, (unsigned char *) sig);
  if (csig != NULL) (*jvmti)->Deallocate(jvmti, (unsigned char *) csig);
}

static void JNICALL dynamic_code_generated(jvmtiEnv *jvmti, const char *name, const void *addr, jint size) {
  (void) jvmti;
  emit(addr, size, "stub:", name, "");
}

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved) {
  jvmtiEnv *jvmti;
  jvmtiCapabilities caps;
  jvmtiEventCallbacks cb;
  char path[64];
  (void) options; (void) reserved;
  if ((*vm)->GetEnv(vm, (void **) &jvmti, JVMTI_VERSION_1_0) != JNI_OK) return 1;
  snprintf(path, sizeof path, "/tmp/perf-%d.map", (int) getpid());
  map = fopen(path, "w");
  if (map == NULL) { perror(path); return 1; }
  memset(&caps, 0, sizeof caps);
  caps.can_generate_compiled_method_load_events = 1;
  if ((*jvmti)->AddCapabilities(jvmti, &caps) != JVMTI_ERROR_NONE) return 1;
  memset(&cb, 0, sizeof cb);
  cb.CompiledMethodLoad = compiled_method_load;
  cb.DynamicCodeGenerated = dynamic_code_generated;
  if ((*jvmti)->SetEventCallbacks(jvmti, &cb, sizeof cb) != JVMTI_ERROR_NONE) return 1;
  (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_COMPILED_METHOD_LOAD, NULL);
  (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_DYNAMIC_CODE_GENERATED, NULL);
  return 0;
}
