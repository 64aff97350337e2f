# The baseline script's older layout: a bare main() call on the last line.
def run(name, *args, **kwargs):
    print(f"ran {name}")
def main():
    run("resident_fp32_b128_noitem")
    run("resident_bf16_b128_noitem")
main()
