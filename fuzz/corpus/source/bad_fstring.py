s = f"{x"
