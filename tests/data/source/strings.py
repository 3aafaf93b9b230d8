s1 = 'single' "double" r'raw\d'
b1 = b'bytes' rb"rb"
s2 = """triple
quoted"""
s3 = f"{x!r:>{width}} {'nested'} {{literal}}"
s4 = F'{a["k"]}' + f"""{b:{c}}
more"""
s5 = u"unicode"
