/* Loads a plugin library through the PJRT C API only (no Python), for running
   inside an older Linux root. Programs are files of serialized HloModuleProto
   (what jaxlib sends), written by the test beside it:

     old_glibc_smoke PLUGIN.so run ADD.pb        create a client, compile and run
                                                 an f32[2] add, check 1+2=3, 4+5=9
     old_glibc_smoke PLUGIN.so compile ADD.pb OPT=...
                                                 create a compile-only client with
                                                 the given bool/string options and
                                                 compile the same module
     old_glibc_smoke PLUGIN.so error BAD.pb      compile a module the plugin must
                                                 reject, print its message
     old_glibc_smoke PLUGIN.so oom BIG.pb        run a module whose result does
                                                 not fit the address space, print
                                                 the error the run returns

   Prints "ok: ..." and exits 0, or prints what failed and exits 1. */

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xla/pjrt/c/pjrt_c_api.h"

static const PJRT_Api* api;

static char* message_of(PJRT_Error* error) {
  PJRT_Error_Message_Args m = {PJRT_Error_Message_Args_STRUCT_SIZE, NULL, error, NULL, 0};
  api->PJRT_Error_Message(&m);
  char* text = malloc(m.message_size + 1);
  memcpy(text, m.message, m.message_size);
  text[m.message_size] = 0;
  return text;
}

/* Prints the error's message with `what` and exits when `error` is set. */
static void check(PJRT_Error* error, const char* what) {
  if (error == NULL) return;
  printf("%s failed: %s\n", what, message_of(error));
  exit(1);
}

static PJRT_Client* create_client(PJRT_NamedValue* options, size_t num_options) {
  PJRT_Plugin_Initialize_Args init = {PJRT_Plugin_Initialize_Args_STRUCT_SIZE, NULL};
  check(api->PJRT_Plugin_Initialize(&init), "PJRT_Plugin_Initialize");
  PJRT_Client_Create_Args create = {0};
  create.struct_size = PJRT_Client_Create_Args_STRUCT_SIZE;
  create.create_options = options;
  create.num_options = num_options;
  check(api->PJRT_Client_Create(&create), "PJRT_Client_Create");
  return create.client;
}

/* The whole file, or exits. */
static char* read_file(const char* path, size_t* size) {
  FILE* f = fopen(path, "rb");
  if (f == NULL) {
    printf("cannot open %s\n", path);
    exit(1);
  }
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char* data = malloc(n > 0 ? (size_t)n : 1);
  *size = fread(data, 1, (size_t)n, f);
  fclose(f);
  return data;
}

/* Compiles a serialized HloModuleProto with an empty CompileOptionsProto (one
   replica of one partition). */
static PJRT_Error* compile(PJRT_Client* client, const char* path, PJRT_LoadedExecutable** out) {
  PJRT_Program program = {0};
  program.struct_size = PJRT_Program_STRUCT_SIZE;
  program.code = read_file(path, &program.code_size);
  program.format = "hlo";
  program.format_size = 3;
  PJRT_Client_Compile_Args args = {0};
  args.struct_size = PJRT_Client_Compile_Args_STRUCT_SIZE;
  args.client = client;
  args.program = &program;
  args.compile_options = "";
  args.compile_options_size = 0;
  PJRT_Error* error = api->PJRT_Client_Compile(&args);
  free(program.code);
  *out = args.executable;
  return error;
}

static void await_and_destroy(PJRT_Event* event) {
  if (event == NULL) return;
  PJRT_Event_Await_Args wait = {PJRT_Event_Await_Args_STRUCT_SIZE, NULL, event};
  check(api->PJRT_Event_Await(&wait), "PJRT_Event_Await");
  PJRT_Event_Destroy_Args done = {PJRT_Event_Destroy_Args_STRUCT_SIZE, NULL, event};
  check(api->PJRT_Event_Destroy(&done), "PJRT_Event_Destroy");
}

static PJRT_Buffer* upload(PJRT_Client* client, PJRT_Device* device, const float* data) {
  static const int64_t dims[1] = {2};
  PJRT_Client_BufferFromHostBuffer_Args args = {0};
  args.struct_size = PJRT_Client_BufferFromHostBuffer_Args_STRUCT_SIZE;
  args.client = client;
  args.data = data;
  args.type = PJRT_Buffer_Type_F32;
  args.dims = dims;
  args.num_dims = 1;
  args.device = device;
  args.host_buffer_semantics = PJRT_HostBufferSemantics_kImmutableOnlyDuringCall;
  check(api->PJRT_Client_BufferFromHostBuffer(&args), "PJRT_Client_BufferFromHostBuffer");
  await_and_destroy(args.done_with_host_buffer);
  return args.buffer;
}

static PJRT_Device* first_device(PJRT_Client* client, size_t* count) {
  PJRT_Client_AddressableDevices_Args devices = {0};
  devices.struct_size = PJRT_Client_AddressableDevices_Args_STRUCT_SIZE;
  devices.client = client;
  check(api->PJRT_Client_AddressableDevices(&devices), "PJRT_Client_AddressableDevices");
  if (devices.num_addressable_devices == 0) {
    printf("the client has no devices\n");
    exit(1);
  }
  *count = devices.num_addressable_devices;
  return devices.addressable_devices[0];
}

/* Runs `executable` on one device; NULL on success. */
static PJRT_Error* execute(PJRT_LoadedExecutable* executable, PJRT_Buffer** arguments,
                           size_t num_args, PJRT_Buffer** outputs) {
  PJRT_Buffer* const* argument_lists[1] = {arguments};
  PJRT_Buffer** output_lists[1] = {outputs};
  PJRT_ExecuteOptions options = {0};
  options.struct_size = PJRT_ExecuteOptions_STRUCT_SIZE;
  PJRT_LoadedExecutable_Execute_Args args = {0};
  args.struct_size = PJRT_LoadedExecutable_Execute_Args_STRUCT_SIZE;
  args.executable = executable;
  args.options = &options;
  args.argument_lists = argument_lists;
  args.num_devices = 1;
  args.num_args = num_args;
  args.output_lists = output_lists;
  return api->PJRT_LoadedExecutable_Execute(&args);
}

static int run_add(const char* path) {
  PJRT_Client* client = create_client(NULL, 0);
  size_t num_devices = 0;
  PJRT_Device* device = first_device(client, &num_devices);
  PJRT_LoadedExecutable* executable;
  check(compile(client, path, &executable), "PJRT_Client_Compile");

  const float x[2] = {1, 4}, y[2] = {2, 5};
  PJRT_Buffer* arguments[2] = {upload(client, device, x), upload(client, device, y)};
  PJRT_Buffer* outputs[1] = {NULL};
  check(execute(executable, arguments, 2, outputs), "PJRT_LoadedExecutable_Execute");

  float result[2] = {0, 0};
  PJRT_Buffer_ToHostBuffer_Args copy = {0};
  copy.struct_size = PJRT_Buffer_ToHostBuffer_Args_STRUCT_SIZE;
  copy.src = outputs[0];
  copy.dst = result;
  copy.dst_size = sizeof result;
  check(api->PJRT_Buffer_ToHostBuffer(&copy), "PJRT_Buffer_ToHostBuffer");
  await_and_destroy(copy.event);
  if (result[0] != 3.0f || result[1] != 9.0f) {
    printf("add returned [%g, %g], expected [3, 9]\n", result[0], result[1]);
    return 1;
  }
  printf("ok: [1, 4] + [2, 5] = [%g, %g] on %zu device(s)\n", result[0], result[1], num_devices);
  return 0;
}

/* "name=true" and "name=false" are bools, anything else after '=' a string. */
static int compile_only(const char* path, int count, char** specs) {
  PJRT_NamedValue options[16];
  if (count > 16) count = 16;
  for (int i = 0; i < count; ++i) {
    char* eq = strchr(specs[i], '=');
    if (eq == NULL) {
      printf("option %s is not name=value\n", specs[i]);
      return 1;
    }
    *eq = 0;
    PJRT_NamedValue* o = &options[i];
    memset(o, 0, sizeof *o);
    o->struct_size = PJRT_NamedValue_STRUCT_SIZE;
    o->name = specs[i];
    o->name_size = strlen(specs[i]);
    const char* value = eq + 1;
    if (strcmp(value, "true") == 0 || strcmp(value, "false") == 0) {
      o->type = PJRT_NamedValue_kBool;
      o->bool_value = strcmp(value, "true") == 0;
      o->value_size = 1;
    } else {
      o->type = PJRT_NamedValue_kString;
      o->string_value = value;
      o->value_size = strlen(value);
    }
  }
  PJRT_Client* client = create_client(options, (size_t)count);
  PJRT_Client_PlatformName_Args name = {PJRT_Client_PlatformName_Args_STRUCT_SIZE, NULL, client,
                                        NULL, 0};
  check(api->PJRT_Client_PlatformName(&name), "PJRT_Client_PlatformName");
  PJRT_LoadedExecutable* executable;
  check(compile(client, path, &executable), "PJRT_Client_Compile");
  printf("ok: compiled on the compile-only %.*s client\n", (int)name.platform_name_size,
         name.platform_name);
  return 0;
}

static int compile_error(const char* path) {
  PJRT_Client* client = create_client(NULL, 0);
  PJRT_LoadedExecutable* executable = NULL;
  PJRT_Error* error = compile(client, path, &executable);
  if (error == NULL) {
    printf("the plugin accepted the module\n");
    return 1;
  }
  printf("ok: rejected: %s\n", message_of(error));
  return 0;
}

/* A module without parameters whose result cannot be allocated: the run must
   fail with the plugin's error, not end the process. */
static int out_of_memory(const char* path) {
  PJRT_Client* client = create_client(NULL, 0);
  PJRT_LoadedExecutable* executable = NULL;
  check(compile(client, path, &executable), "PJRT_Client_Compile");
  PJRT_Buffer* outputs[1] = {NULL};
  PJRT_Error* error = execute(executable, NULL, 0, outputs);
  if (error == NULL) {
    printf("the run succeeded\n");
    return 1;
  }
  printf("ok: failed: %s\n", message_of(error));
  return 0;
}

int main(int argc, char** argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: %s PLUGIN.so run|compile|error|oom PROGRAM.pb [OPT=VALUE...]\n",
            argv[0]);
    return 2;
  }
  void* library = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (library == NULL) {
    printf("dlopen failed: %s\n", dlerror());
    return 1;
  }
  PJRT_GetPjrtApi_Fn get_api = (PJRT_GetPjrtApi_Fn)dlsym(library, "GetPjrtApi");
  if (get_api == NULL || (api = get_api()) == NULL) {
    printf("no GetPjrtApi in %s\n", argv[1]);
    return 1;
  }
  if (strcmp(argv[2], "run") == 0) return run_add(argv[3]);
  if (strcmp(argv[2], "compile") == 0) return compile_only(argv[3], argc - 4, argv + 4);
  if (strcmp(argv[2], "error") == 0) return compile_error(argv[3]);
  if (strcmp(argv[2], "oom") == 0) return out_of_memory(argv[3]);
  fprintf(stderr, "unknown mode %s\n", argv[2]);
  return 2;
}
