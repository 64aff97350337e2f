# The baseline script's layout with a __main__ guard: run() per configuration, main() calls them.
def run(name, *args, **kwargs):
    print(f"ran {name}")
def main():
    run("resident_fp32_b128_noitem")
    run("resident_bf16_b128_noitem")
if __name__ == "__main__":
    main()
