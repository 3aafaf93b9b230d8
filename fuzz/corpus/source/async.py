async def f():
    async with a as b:
        await c
    async for x in y:
        yield x
